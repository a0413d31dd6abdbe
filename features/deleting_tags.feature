@cap:tags
Feature: Deleting tags
  Someone granted MANAGE_TAGS, or DELETE_ENTITY on the tag, deletes a tag; then nothing of
  it is left to read. CREATE_TAGS does not let anyone delete a tag, nor does DELETE_ENTITY
  on another tag. A refused deletion leaves the tag as it was.

  Background:
    Given Ann holds a personal access token
    And a tag exists

  @id:deltag-01 @must @core
  Scenario: Someone granted MANAGE_TAGS deletes a tag
    Given Ann is granted MANAGE_TAGS
    When Ann deletes the tag
    Then the tag does not exist

  @id:deltag-02 @must @core
  Scenario: Someone granted DELETE_ENTITY on the tag deletes it
    Given Ann is granted DELETE_ENTITY on that tag only
    When Ann deletes the tag
    Then the tag does not exist

  @id:deltag-03 @must @core
  Scenario: Someone granted neither privilege cannot delete a tag
    When Ann deletes the tag
    Then Ann is rejected as unauthorized
    And the tag exists with its name and description

  @id:deltag-04 @must @core
  Scenario Outline: Someone granted only <privilege> cannot delete a tag
    Given Ann is granted <privilege>
    When Ann deletes the tag
    Then Ann is rejected as unauthorized
    And the tag exists with its name and description

    Examples:
      | privilege   |
      | CREATE_TAGS |
      | EDIT_ENTITY |

  @id:deltag-05 @must @core
  Scenario: Someone granted DELETE_ENTITY on another tag cannot delete this one
    Given Ann is granted DELETE_ENTITY on another tag only
    When Ann deletes the tag
    Then Ann is rejected as unauthorized
    And the tag exists with its name and description
