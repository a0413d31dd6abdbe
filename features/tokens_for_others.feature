@cap:tokens
Feature: Tokens for other users
  Someone granted MANAGE_ACCESS_TOKENS (a manager) creates personal access tokens for other
  users. Such a token stands for the other user, its actor, and records the manager as its
  owner; used, it acts with the other user's privileges, never the manager's. Managers
  list, describe and revoke tokens whoever owns them. Without MANAGE_ACCESS_TOKENS nobody
  creates a token for someone else, and the actor of a token someone else owns may not
  revoke it.

  Background:
    Given Mia holds a personal access token
    And Mia is granted MANAGE_ACCESS_TOKENS
    And Bob is a user

  @id:others-01 @must @smoke
  Scenario: A manager creates a token for another user
    When Mia creates a personal access token for Bob
    Then the new token is described with Bob as its actor and Mia as its owner
    And the new token acts as Bob

  @id:others-02 @must @core
  Scenario: A token made by a manager has its user's privileges, not the manager's
    Given Mia is granted CREATE_TAGS
    And Mia has created a personal access token for Bob
    When Bob creates a tag with the new token
    Then Bob is rejected as unauthorized
    But Mia can create a tag

  @id:others-03 @must @core
  Scenario: Someone without MANAGE_ACCESS_TOKENS cannot create a token for another user
    Given Ann holds a personal access token
    When Ann creates a personal access token for Bob
    Then Ann is rejected as unauthorized
    And no token was created for Bob

  @id:others-04 @must @core
  Scenario Outline: Someone granted only <privilege> cannot create a token for another user
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    When Ann creates a personal access token for Bob
    Then Ann is rejected as unauthorized
    And no token was created for Bob

    Examples:
      | privilege                       |
      | GENERATE_PERSONAL_ACCESS_TOKENS |
      | MANAGE_POLICIES                 |

  @id:others-05 @must @core
  Scenario: A manager lists tokens someone else owns
    Given Bob holds a personal access token
    And Bob has created a personal access token for himself
    When Mia lists the tokens Bob owns
    Then the list includes the new token

  @id:others-06 @must @core
  Scenario: A manager reads the metadata of a token someone else owns
    Given Bob holds a personal access token
    And Bob has created a personal access token for himself
    When Mia reads the metadata of the new token
    Then the metadata describes the new token with Bob as its actor and Bob as its owner

  @id:others-07 @must @core
  Scenario: A manager revokes a token someone else owns
    Given Bob holds a personal access token
    And Bob has created a personal access token for himself
    And the new token acts as Bob
    When Mia revokes the new token
    Then the new token is refused

  @id:others-08 @must @core
  Scenario: The user a manager made a token for cannot revoke it
    Given Bob holds a personal access token
    And Mia has created a personal access token for Bob
    When Bob revokes the new token
    Then Bob is rejected as unauthorized
    And the new token acts as Bob

  @id:others-09 @must @core
  Scenario Outline: Someone granted only <privilege> is refused when she <action>
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    And Bob holds a personal access token
    And Bob has created a personal access token for himself
    When Ann <action>
    Then Ann is rejected as unauthorized

    Examples:
      | privilege                       | action                              |
      | MANAGE_POLICIES                 | lists the tokens Bob owns           |
      | MANAGE_POLICIES                 | revokes the new token               |
      | MANAGE_POLICIES                 | reads the metadata of the new token |
      | GENERATE_PERSONAL_ACCESS_TOKENS | reads the metadata of the new token |
