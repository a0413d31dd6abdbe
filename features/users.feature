@cap:user-management @cap:native-users
Feature: Listing and removing users
  listUsers pages through the users, optionally narrowed by a search query; DataHub lets
  anyone who is signed in list them (ListUsersResolver asks for no privilege). removeUser
  removes a user: it needs the platform privilege MANAGE_USERS_AND_GROUPS, which lets its
  holder update and delete users and groups; neither updating users and groups alone, nor
  managing their credentials, is enough. A removed user is gone: no longer listed, without
  a profile, unable to sign in, and every token and session of theirs is refused. DataHub
  lists users from a search index, so a new or removed user may take a moment to show in
  the list: the scenarios wait for it within the propagation window.

  Whoever later signs up under a removed user's name, or is made anew by ingestion, is
  someone new: a reset token made for the removed user sets no password for them (DataHub
  removes the user's credentials with them). Recommended beyond DataHub: nothing else of
  the removed user comes back either. DataHub refuses a removed user's tokens and sessions
  only while no user of that name exists, and keeps the policies that name them, so that
  the new user's sign-up or a routine ingestion of the name revives the old never-expiring
  tokens, the old sessions and the old privileges. And a user's status is administration:
  suspending or reinstating someone through ingestion needs MANAGE_USERS_AND_GROUPS, the
  privilege DataHub's updateUserStatus asks for, besides EDIT_ENTITY on the user (DataHub's
  ingestion asks for EDIT_ENTITY alone).

  Recommended too: removeUser removes users and nothing else. It refuses the root user and the
  system user (the operator's way in and the service itself), something that is not a user
  (DataHub's deletes any entity), a user no one has made (DataHub answers true) and a
  malformed URN, each changing nothing. The suite asks to remove the system user first, and
  the root user only once that was refused: a target that removed its root user would end
  the run's administrator with it.

  @id:users-01 @must @smoke
  Scenario: Anyone signed in lists the users and finds one who signed up
    Given Carl has a password
    And Ann holds a personal access token
    When Ann lists the users, looking for Carl
    Then the list includes Carl

  @id:users-02 @must @core
  Scenario: Someone holding MANAGE_USERS_AND_GROUPS removes a user
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USERS_AND_GROUPS
    And Carl has a password
    When Ann removes Carl
    Then the answer says the user was removed
    And Carl is no longer listed and has no profile
    And Carl cannot sign in at the frontend's sign-in API with his password

  @id:users-03 @must @core
  Scenario Outline: Someone holding only <privilege> cannot remove a user
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    And Carl has a password
    When Ann removes Carl
    Then Ann is rejected as unauthorized

    Examples:
      | privilege               |
      | UPDATE_USERS_AND_GROUPS |
      | MANAGE_USER_CREDENTIALS |
      | MANAGE_POLICIES         |

  @id:users-04 @must @core
  Scenario: The token of a removed user is refused
    Given Carl holds a personal access token
    When the administrator removes Carl
    Then Carl's token is refused

  @id:users-05 @should @core @cap:ingestion
  Scenario Outline: Nothing of a removed user comes back when <the name comes back>
    Given Carl holds a personal access token
    And Carl is signed in at the frontend's sign-in API
    And the administrator has removed Carl
    When <the name comes back>
    Then Carl's token from before the removal is refused
    And Carl's session from before the removal is refused

    Examples:
      | the name comes back                           |
      | someone signs up under Carl's name            |
      | the administrator ingests Carl's info anew    |

  @id:users-06 @should @core
  Scenario: Someone who signs up under a removed user's name holds none of the privileges granted to the removed user
    Given Carl holds a personal access token
    And Carl is granted MANAGE_POLICIES
    And the administrator has removed Carl
    When someone signs up under Carl's name
    Then the new Carl does not hold MANAGE_POLICIES

  @id:users-07 @must @core
  Scenario: A reset token made before a user was removed sets no password for whoever signs up under the name
    Given Carl has a password
    And the administrator has made a password reset token for Carl
    And the administrator has removed Carl
    When someone signs up under Carl's name
    Then a new password sent with the reset token made before the removal is refused
    And the new Carl signs in with the password chosen at sign-up, and no one with the other one

  @id:users-08 @should @core @cap:ingestion
  Scenario: Someone who may edit a user but not manage users cannot suspend them through ingestion
    Given Ann holds a personal access token
    And Ann is granted EDIT_ENTITY
    And Bob holds a personal access token
    When Ann suspends Bob through ingestion
    Then the answer has status 403
    And Bob's token still works

  @id:users-09 @should @core @cap:ingestion
  Scenario: Someone who may edit a user but not manage users cannot reinstate a suspended user through ingestion
    Given Ann holds a personal access token
    And Ann is granted EDIT_ENTITY
    And Bob holds a personal access token
    And the administrator suspends Bob
    And Bob's token is refused
    When Ann reinstates Bob through ingestion
    Then the answer has status 403
    And Bob's token is still refused

  @id:users-10 @must @core @cap:ingestion
  Scenario: Someone who may edit a user and manage users suspends them through ingestion
    Given Ann holds a personal access token
    And Ann is granted EDIT_ENTITY
    And Ann is granted MANAGE_USERS_AND_GROUPS
    And Bob holds a personal access token
    When Ann suspends Bob through ingestion
    Then the ingestion is acknowledged
    And Bob's token is refused

  @id:users-11 @should @core
  Scenario: Someone holding MANAGE_USERS_AND_GROUPS can remove neither the system user nor the root user
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USERS_AND_GROUPS
    When Ann removes the system user and then the root user
    Then both removals are refused as bad requests
    And the root user is as it was, and the administrator's token still works

  @id:users-12 @should @core @cap:tags
  Scenario: removeUser of something that is not a user is refused as a bad request, and it stays
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USERS_AND_GROUPS
    And a tag exists
    When Ann removes the tag with removeUser
    Then the removal is refused as a bad request, and changes nothing

  @id:users-13 @should @core
  Scenario Outline: removeUser of <what> is refused as <refusal>
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USERS_AND_GROUPS
    When Ann removes <what> with removeUser
    Then the removal is refused as <refusal>, and changes nothing

    Examples:
      | what                        | refusal       |
      | a user no one has made      | not found     |
      | a user by a malformed URN   | a bad request |
